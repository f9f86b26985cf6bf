import { Model, Authenticates } from 'trowel'
export class User extends Authenticates(Model) {
  static table = 'users'
  static fillable = ['name', 'email', 'password']
  static hidden = ['password', 'remember_token', 'api_token']
}
